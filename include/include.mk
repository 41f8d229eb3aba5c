# placeholder: owner fills in
